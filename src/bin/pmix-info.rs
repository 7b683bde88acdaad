//! `pmix-info`: what this PMIx library is and what its functions honour.
//!
//! Without options: the version (the string `PMIx_Get_version` returns,
//! and this implementation's own) and the build options. `--client`,
//! `--server`, `--tool`: each function of that level with the attributes
//! it honours (name, key string, type, description), as
//! `PMIX_QUERY_ATTRIBUTE_SUPPORT` answers them ([`pmix::attributes`]);
//! `--attrs FUNC[,FUNC...]` the same for the functions named, at any
//! level. `--host` asks a running server (attaching as a tool, as
//! `pmix-ps` does: the server `--pid` names, else the only one whose
//! rendezvous file is in the temporary directory) for what its host
//! registered with `PMIx_Register_attributes`.
//!
//! Exit status: 0 done, 1 an error a person can act on (an unknown
//! function, no server to ask, a server that refused), 2 a usage error.

use std::ffi::CString;
use std::path::PathBuf;
use std::process::ExitCode;

use pmix::attributes::{self, Level};
use pmix::client::Client;
use pmix::net::tool_files;
use pmix::value::{Query, RegAttr, Value};
use pmix::{keys, Info, Status};

const USAGE: &str = "usage: pmix-info [OPTION...]

Describes this PMIx library: its version and build options (the default),
and the attributes each of its functions honours.

  --version              the version only
  --client               client functions and their attributes
  --server               server functions and their attributes
  --tool                 tool functions and their attributes
  --attrs FUNC[,FUNC...] the attributes of the functions named (any level)
  --functions            with --client/--server/--tool/--host: the
                         function names only
  --host                 what the host of a running PMIx server registered
                         (PMIx_Register_attributes); attaches to the server
                         as a tool
  --pid PID              the server for --host (default: the only server
                         with tool support in the temporary directory)
  --tmpdir DIR           where servers' rendezvous files are (default:
                         $TMPDIR, or /tmp)
  --all                  everything above but --host
  -h, --help             this text

Exit status: 0 done, 1 error (unknown function, no server to ask), 2 usage
error.";

/// What the command line asks for.
#[derive(Default)]
struct Request {
    version_only: bool,
    build: bool,
    levels: Vec<Level>,
    functions_only: bool,
    attrs: Vec<String>,
    host: bool,
    pid: Option<u32>,
    tmpdir: Option<PathBuf>,
}

fn usage_error(what: &str) -> ExitCode {
    eprintln!("pmix-info: {what}\n\n{USAGE}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let mut r = Request::default();
    let mut args = std::env::args().skip(1);
    let mut any = false;
    while let Some(a) = args.next() {
        any = true;
        match a.as_str() {
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            "--version" => r.version_only = true,
            "--client" => r.levels.push(Level::Client),
            "--server" => r.levels.push(Level::Server),
            "--tool" => r.levels.push(Level::Tool),
            "--host" => r.host = true,
            "--functions" => r.functions_only = true,
            "--all" => {
                r.build = true;
                r.levels = vec![Level::Client, Level::Server, Level::Tool];
            }
            "--attrs" => match args.next() {
                Some(f) if !f.starts_with('-') => r.attrs.extend(
                    f.split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(str::to_owned),
                ),
                _ => return usage_error("--attrs needs function names, such as PMIx_Fence"),
            },
            "--pid" => match args.next().and_then(|p| p.parse::<u32>().ok()) {
                Some(p) if p > 0 => r.pid = Some(p),
                _ => return usage_error("--pid needs a process id"),
            },
            "--tmpdir" => match args.next() {
                Some(d) => r.tmpdir = Some(PathBuf::from(d)),
                None => return usage_error("--tmpdir needs a directory"),
            },
            other => return usage_error(&format!("unknown argument {other:?}")),
        }
    }
    if !any {
        r.build = true;
    }
    if r.functions_only && r.levels.is_empty() && !r.host {
        return usage_error("--functions goes with --client, --server, --tool or --host");
    }
    if (r.pid.is_some() || r.tmpdir.is_some()) && !r.host {
        return usage_error("--pid and --tmpdir go with --host");
    }
    run(&r)
}

fn run(r: &Request) -> ExitCode {
    if r.version_only {
        println!("{}", pmix::strings::text(pmix::strings::VERSION));
        return ExitCode::SUCCESS;
    }
    if r.build {
        print_build();
    }
    for &level in &r.levels {
        print_level(level, r.functions_only);
    }
    let mut status = ExitCode::SUCCESS;
    if !r.attrs.is_empty() {
        let unknown = print_named(&r.attrs);
        if !unknown.is_empty() {
            eprintln!(
                "pmix-info: no function {} in this library (see pmix-info --client, --server, --tool)",
                unknown.join(", ")
            );
            status = ExitCode::from(1);
        }
    }
    if r.host {
        if let Err(e) = print_host(r) {
            eprintln!("pmix-info: {e}");
            status = ExitCode::from(1);
        }
    }
    status
}

fn print_build() {
    println!("Package:            {}", pmix::strings::IMPLEMENTATION);
    println!(
        "API level:          {} (every function of its libpmix.so.2; 4.2.2's layouts)",
        pmix::strings::API_LEVEL
    );
    println!(
        "Version string:     {}",
        pmix::strings::text(pmix::strings::VERSION)
    );
    println!(
        "ABI versions:       stable {}, provisional {}",
        pmix::strings::STD_ABI_STABLE,
        pmix::strings::STD_ABI_PROVISIONAL
    );
    println!(
        "Build:              {}",
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        }
    );
    println!(
        "Wire protocol:      version {}",
        pmix::wire::PROTOCOL_VERSION
    );
    println!(
        "Segments:           format {}, layout id {:#018x} (rkyv, little-endian, 32-bit offsets)",
        pmix_shmem::FORMAT_VERSION,
        pmix_shmem::LAYOUT_ID
    );
    println!("Attributes known:   {}", keys::ATTRIBUTES.len());
    for level in [Level::Client, Level::Server, Level::Tool] {
        let fns = level.library_functions();
        let honouring = fns.iter().filter(|h| !h.attrs.is_empty()).count();
        println!(
            "{:<20}{} functions, {} honouring attributes",
            format!("{} functions:", level_name(level)),
            fns.len(),
            honouring
        );
    }
}

fn level_name(level: Level) -> &'static str {
    match level {
        Level::Client => "Client",
        Level::Server => "Server",
        Level::Tool => "Tool",
        Level::Host => "Host",
    }
}

/// One attribute as a line: name, key string, type, description.
fn attr_line(a: &RegAttr) -> String {
    let text = |s: Option<&std::ffi::CStr>| s.map(|c| c.to_string_lossy().into_owned());
    let name = text(a.name.as_deref()).unwrap_or_default();
    if name == attributes::NONE {
        return format!("    {name}");
    }
    let string = a.string.to_string_lossy();
    let ty = pmix::strings::text(pmix::strings::data_type_string(a.data_type));
    let desc = a
        .description
        .iter()
        .map(|d| d.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ");
    format!("    {name:<36} {string:<26} {ty:<20} {desc}")
}

/// Prints the infos of an attribute answer: one block per function.
fn print_functions(infos: &[Info]) {
    for i in infos {
        let Value::DataArray(a) = &i.value else {
            continue;
        };
        println!("{}:", i.key.to_string_lossy());
        for v in &a.items {
            if let Value::RegAttr(r) = v {
                println!("{}", attr_line(r));
            }
        }
    }
}

fn print_level(level: Level, functions_only: bool) {
    if functions_only {
        let names = attributes::functions(level)
            .and_then(|i| i.value.as_str().map(str::to_owned))
            .unwrap_or_default();
        println!("{} functions: {names}", level_name(level).to_uppercase());
        return;
    }
    println!(
        "{} FUNCTIONS AND THE ATTRIBUTES THEY HONOUR:",
        level_name(level).to_uppercase()
    );
    print_functions(&attributes::attributes(level, None));
    println!();
}

/// Prints the functions named; returns those no level has.
fn print_named(names: &[String]) -> Vec<String> {
    let list = Value::string(&names.join(","));
    let mut found = Vec::new();
    for level in [Level::Client, Level::Server, Level::Tool] {
        let infos = attributes::attributes(level, Some(&list));
        found.extend(infos.iter().map(|i| i.key.to_string_lossy().into_owned()));
        print_functions(&infos);
    }
    names
        .iter()
        .filter(|n| !found.contains(n))
        .cloned()
        .collect()
}

/// The rendezvous file of the server to ask.
fn server_file(r: &Request) -> Result<PathBuf, String> {
    let dir = r
        .tmpdir
        .clone()
        .unwrap_or_else(|| pmix::server::ServerConfig::default().tmpdir);
    let host = pmix::server::local_hostname();
    if let Some(pid) = r.pid {
        let f = tool_files::by_pid(&dir, &host, pid);
        if !f.exists() {
            return Err(format!(
                "no PMIx server with tool support has pid {pid} (no {} here); \
                 check the pid, or --tmpdir",
                f.display()
            ));
        }
        return Ok(f);
    }
    let found: Vec<PathBuf> = tool_files::pid_files(&dir, &host)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .into_iter()
        .map(|(_, f)| f)
        .collect();
    match found.as_slice() {
        [] => Err(format!(
            "no PMIx server with tool support in {}: start one (pmixrun), or name it \
             with --pid and --tmpdir",
            dir.display()
        )),
        [one] => Ok(one.clone()),
        _ => Err(format!(
            "{} servers in {}: name one with --pid",
            found.len(),
            dir.display()
        )),
    }
}

fn print_host(r: &Request) -> Result<(), String> {
    let file = server_file(r)?;
    let uri = tool_files::read_uri(&file)
        .ok_or_else(|| format!("{} holds no server address", file.display()))?;
    let uri_info =
        Info::keyed(keys::SERVER_URI, Value::string(&uri)).ok_or("bad server address")?;
    let tool = Client::tool_init(&[uri_info])
        .map_err(|s| format!("the server of {} refused or is gone ({s})", file.display()))?;
    let result = ask_host(&tool, r.functions_only);
    let _ = tool.finalize();
    result
}

fn ask_host(tool: &Client, functions_only: bool) -> Result<(), String> {
    let qualifier = if functions_only {
        Info::keyed(keys::HOST_FUNCTIONS, Value::Bool(true))
    } else {
        Info::keyed(keys::HOST_ATTRIBUTES, Value::string("all"))
    }
    .ok_or("bad qualifier")?;
    let q = Query {
        keys: vec![CString::new(keys::QUERY_ATTRIBUTE_SUPPORT).map_err(|e| e.to_string())?],
        qualifiers: vec![qualifier],
    };
    let server = tool.server().nspace.to_string_lossy().into_owned();
    let infos = match tool.query(&[q]) {
        Ok((_, infos)) => infos,
        Err(Status::ERR_NOT_FOUND) => {
            println!("HOST of server {server}: registered no attributes");
            return Ok(());
        }
        Err(s) => return Err(format!("the server {server} did not answer ({s})")),
    };
    let items: Vec<Info> = infos
        .into_iter()
        .filter(|i| i.key.as_bytes() == keys::QUERY_ATTRIBUTE_SUPPORT.as_bytes())
        .filter_map(|i| match i.value {
            Value::DataArray(a) => Some(a.items),
            _ => None,
        })
        .flatten()
        .filter_map(|v| match v {
            Value::Info(i) => Some(*i),
            _ => None,
        })
        .collect();
    if functions_only {
        let names = items
            .iter()
            .find_map(|i| i.value.as_str().map(str::to_owned))
            .unwrap_or_default();
        println!("HOST functions of server {server}: {names}");
    } else {
        println!("HOST FUNCTIONS OF SERVER {server} AND THE ATTRIBUTES THEY HONOUR:");
        print_functions(&items);
    }
    Ok(())
}
