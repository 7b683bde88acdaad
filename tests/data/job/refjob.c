/* Reference probe: regex samples and what OpenPMIx 4.2.2 derives on
 * PMIx_server_register_nspace (a 3-node job, ppn 4,2,3, this host second,
 * registered with PMIX_NODE_MAP and PMIX_PROC_MAP only), read back with
 * PMIx_Get in the server. tests/job_description.rs checks our parsers and
 * our derived keys against the recorded output, refjob.out, made with:
 *
 *   gcc -I/usr/lib/x86_64-linux-gnu/pmix2/include refjob.c -o refjob \
 *       -L/usr/lib/x86_64-linux-gnu/pmix2/lib \
 *       -Wl,-rpath,/usr/lib/x86_64-linux-gnu/pmix2/lib -lpmix
 *   ./refjob | sed "s/\b$(hostname)\b/LOCALHOST/g" > refjob.out
 *
 * Lines: "regex|ppn TAB input TAB status TAB output"; "get TAB rank TAB key
 * TAB type TAB printed value" (or the error); "getq TAB qualifier TAB key
 * ..." for node-realm gets with PMIX_NODE_INFO and a PMIX_NODEID or
 * PMIX_HOSTNAME qualifier. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pmix.h>
#include <pmix_server.h>
static void r(const char *in){char*o=NULL;int rc=PMIx_generate_regex(in,&o);printf("regex\t%s\t%d\t%s\n",in,rc,o?o:"(null)");free(o);}
static void p(const char *in){char*o=NULL;int rc=PMIx_generate_ppn(in,&o);printf("ppn\t%s\t%d\t%s\n",in,rc,o?o:"(null)");free(o);}
static volatile int done=0; static int st=0;
static void opcb(pmix_status_t s, void*cb){(void)cb; st=s; done=1;}
static void show(const char*ns, pmix_rank_t rank, const char*key, pmix_info_t*q, size_t nq){
  pmix_proc_t pr; PMIX_PROC_LOAD(&pr, ns, rank); pmix_value_t*v=NULL;
  char who[64];
  if (nq > 1) {
    if (PMIX_UINT32 == q[1].value.type) snprintf(who, sizeof who, "getq\tnodeid=%u", q[1].value.data.uint32);
    else snprintf(who, sizeof who, "getq\thost=%s", q[1].value.data.string);
  } else snprintf(who, sizeof who, "get\t%u", rank);
  int rc=PMIx_Get(&pr,key,q,nq,&v);
  if(rc!=PMIX_SUCCESS){printf("%s\t%s\t%s\n",who,key,PMIx_Error_string(rc));return;}
  char*s=PMIx_Value_string(v); printf("%s\t%s\t%s\t%s\n",who,key,PMIx_Data_type_string(v->type),s?s:"?"); free(s); PMIX_VALUE_RELEASE(v);
}
int main(int argc,char**argv){
  (void)argc;(void)argv;
  if (PMIX_SUCCESS != PMIx_server_init(NULL,NULL,0)) {printf("init failed\n"); return 1;}
  r("node01,node02,node03"); r("n1,n2,n3,n5"); r("c001x,c002x"); r("node1,node10"); r("a28n01,a99n02,a28n02");
  r("localhost"); r("node-1,node-2,head"); r("nid00001,nid00002,nid00003,nid00010,nid00011,login1");
  r("host.example.com,host2.example.com"); r("cn001-ib,cn002-ib,cn003-ib"); r("12,13");
  r("rack1-node01,rack1-node02"); r("node001,node002,node003,node004,node005,node006,node007,node008");
  p("0,1,2,3;4,5,6,7"); p("0,1,2;3,4,5;6"); p("0,1,2,3,4,5,6,7,8,9,10,11;12,13,14,15,16,17,18,19,20,21,22,23");
  p("0,2,4,6,8,10,12;1,3,5,7,9,11,13"); p("0,1,2,3,8,9,10,11;4,5,6,7,12,13,14,15"); p("0-3;4-7");
  char host[256]; gethostname(host,sizeof host);
  /* 3 nodes: this host, nodeb, nodec; ppn 4,2,3; maps as the generators give */
  char nodes[512]; snprintf(nodes,sizeof nodes,"nodeb,%s,nodec",host);
  char *nm=NULL,*pm=NULL; PMIx_generate_regex(nodes,&nm); PMIx_generate_ppn("0,1,2,3;4,5;6,7,8",&pm);
  printf("nodemap\t%s\nprocmap\t%s\n",nm,pm);
  pmix_info_t info[2];
  PMIX_INFO_LOAD(&info[0], PMIX_NODE_MAP, nm, PMIX_STRING);
  PMIX_INFO_LOAD(&info[1], PMIX_PROC_MAP, pm, PMIX_STRING);
  int rc; pmix_nspace_t ns; PMIX_LOAD_NSPACE(ns,"refjob"); rc = PMIx_server_register_nspace(ns, 2, info, 2, opcb, NULL);
  if (rc==PMIX_SUCCESS) while(!done) usleep(1000); else st=rc;
  printf("register\t%d\n",st);
  const char*jk[]={PMIX_JOB_SIZE,PMIX_MAX_PROCS,PMIX_NUM_NODES,PMIX_NODE_LIST,PMIX_UNIV_SIZE,PMIX_JOBID,PMIX_NSPACE,PMIX_JOB_NUM_APPS,
     PMIX_LOCAL_SIZE,PMIX_LOCAL_PEERS,PMIX_LOCALLDR,PMIX_NODE_SIZE,PMIX_HOSTNAME,PMIX_NODEID,PMIX_APPNUM,PMIX_APP_SIZE,PMIX_APPLDR,PMIX_TMPDIR,PMIX_NSDIR,NULL};
  for(int i=0;jk[i];i++) show("refjob",PMIX_RANK_WILDCARD,jk[i],NULL,0);
  const char*pk[]={PMIX_HOSTNAME,PMIX_NODEID,PMIX_LOCAL_RANK,PMIX_NODE_RANK,PMIX_APPNUM,PMIX_APP_RANK,PMIX_GLOBAL_RANK,PMIX_LOCALITY_STRING,PMIX_LOCAL_SIZE,PMIX_JOB_SIZE,NULL};
  for(int rk=0;rk<9;rk+=4) for(int i=0;pk[i];i++) show("refjob",rk,pk[i],NULL,0);
  for(int i=0;pk[i];i++) show("refjob",5,pk[i],NULL,0);
  pmix_info_t q[2]; uint32_t nid=2;
  PMIX_INFO_LOAD(&q[0], PMIX_NODE_INFO, NULL, PMIX_BOOL);
  PMIX_INFO_LOAD(&q[1], PMIX_NODEID, &nid, PMIX_UINT32);
  show("refjob",PMIX_RANK_WILDCARD,PMIX_LOCAL_PEERS,q,2);
  show("refjob",PMIX_RANK_WILDCARD,PMIX_LOCALLDR,q,2);
  show("refjob",PMIX_RANK_WILDCARD,PMIX_LOCAL_SIZE,q,2);
  show("refjob",PMIX_RANK_WILDCARD,PMIX_HOSTNAME,q,2);
  PMIX_INFO_LOAD(&q[1], PMIX_HOSTNAME, "nodeb", PMIX_STRING);
  show("refjob",PMIX_RANK_WILDCARD,PMIX_LOCAL_PEERS,q,2);
  show("refjob",PMIX_RANK_WILDCARD,PMIX_NODEID,q,2);
  PMIx_server_finalize();
  return 0;}
