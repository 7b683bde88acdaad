/* PMIx_App_string of apps with infos: OpenPMIx 5.0 prints each info with
 * PMIx_Info_string, whose attribute dictionary it loads in PMIx_Init (it
 * crashes before), so this program calls PMIx_Init first; without a
 * server that fails the same way on both libraries, and the dictionary is
 * there all the same. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pmix.h>

int main(void)
{
    pmix_proc_t me;
    pmix_app_t app;
    pmix_info_t info[4];
    char *argv[] = {"prog", "arg one", NULL};
    uint32_t u = 7;
    int n = 4;
    bool t = true;
    char *s;
    pmix_status_t rc;

    rc = PMIx_Init(&me, NULL, 0);
    printf("init %d\n", rc);
    memset(&app, 0, sizeof(app));
    app.cmd = "prog";
    app.argv = argv;
    app.cwd = "/work";
    app.maxprocs = -1;
    memset(info, 0, sizeof(info));
    PMIx_Info_load(&info[0], PMIX_PPR, "1:node", PMIX_STRING);
    PMIx_Info_load(&info[1], "pmix.np", &n, PMIX_INT);
    PMIx_Info_load(&info[2], "my.key", &u, PMIX_UINT32);
    PMIx_Info_required(&info[2]);
    PMIx_Info_load(&info[3], PMIX_SET_ENVAR, &t, PMIX_BOOL);
    app.info = info;
    for (app.ninfo = 0; app.ninfo <= 4; app.ninfo++) {
        s = PMIx_App_string(&app);
        printf("ninfo %zu:\n%s\n--\n", app.ninfo, s ? s : "(NULL)");
        free(s);
    }
    for (n = 0; n < 4; n++) {
        PMIX_INFO_DESTRUCT(&info[n]);
    }
    if (PMIX_SUCCESS == rc) {
        PMIx_Finalize(NULL, 0);
    }
    return 0;
}
