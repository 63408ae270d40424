/* boot_sysv — a System V init script linked into its runlevels the way
 * Debian does it: by update-rc.d where the root has it (run with DPKG_ROOT
 * set to a --root, as dpkg runs it for one), so insserv's ordering and the
 * administrator's enable/disable choices hold; sluice's own S99 links only
 * where there is no update-rc.d. */
#include "profile/boot.h"
#include "core/sysfs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define UPDATE_RC_D "/usr/sbin/update-rc.d"

extern char **environ;

bool boot_update_rc_d_present(void)
{
    /* The root's says it is a Debian-style system; this host's is the one
     * that runs (for a --root it acts on DPKG_ROOT, never on the host). */
    return sysfs_exists(UPDATE_RC_D) && access(UPDATE_RC_D, X_OK) == 0;
}

/* The environment update-rc.d gets: ours, with DPKG_ROOT the root (or
 * without it on the real root). malloc'ed array; the strings are environ's
 * and root_env. */
static char **update_rc_d_env(char *root_env)
{
    size_t n = 0;
    while (environ[n]) n++;
    char **env = xcalloc(n + 2, sizeof *env);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "DPKG_ROOT=", 10) != 0) env[k++] = environ[i];
    if (!sysfs_is_real_root()) env[k++] = root_env;
    return env;
}

int boot_update_rc_d(const char *action, sl_err *e)
{
    char root_env[PATH_MAX + 16];
    snprintf(root_env, sizeof root_env, "DPKG_ROOT=%s", sysfs_root());
    char **env = update_rc_d_env(root_env);
    char *const argv[] = { "update-rc.d", BOOT_INITSCRIPT, (char *)action, NULL };
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        free(env);
        return sl_fail_errno(e, SL_EFAIL, errno, "starting %s", UPDATE_RC_D);
    }
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (null >= 0) dup2(null, STDOUT_FILENO);
        execve(UPDATE_RC_D, argv, env); /* security: OK because the path, the script name and the action are fixed */
        _exit(127);
    }
    free(env);
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return sl_fail_errno(e, SL_EFAIL, errno, "waiting for %s", UPDATE_RC_D);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 0;
    return sl_fail(e, SL_EFAIL, "'%s%s%supdate-rc.d %s %s' failed (%s %d)", sysfs_is_real_root() ? "" : "DPKG_ROOT=",
                   sysfs_root(), sysfs_is_real_root() ? "" : " ", BOOT_INITSCRIPT, action,
                   WIFEXITED(st) ? "exit status" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
}
