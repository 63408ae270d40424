/* metric — the sysadmin's own metric: a shell command that prints one
 * number, run once per block while the block measures. It runs beside the
 * sampling loop (read without blocking), and one still running when its
 * block ends is killed with its whole process group: a hung query must not
 * stretch a block or outlive the test. */
#include "verify/live.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int verify_cmd_start(struct verify_cmd *c, const char *cmd, sl_err *e)
{
    memset(c, 0, sizeof *c);
    c->fd = -1;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0) return sl_fail_errno(e, SL_EFAIL, errno, "--metric: cannot make a pipe");
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return sl_fail_errno(e, SL_EFAIL, errno, "--metric: cannot start '%s'", cmd);
    }
    if (pid == 0) {
        setpgid(0, 0);
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, STDIN_FILENO);
            dup2(null, STDERR_FILENO);
        }
        dup2(fds[1], STDOUT_FILENO);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        /* the one command sluice runs: --metric CMD, typed by the administrator on the command line of verify --live
         * and run with their own privileges; nothing stored or downloaded reaches it */
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL); /* security: OK because cmd is the user's own --metric */
        _exit(127);
    }
    setpgid(pid, pid);   /* both sides: whichever runs first */
    close(fds[1]);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    c->pid = pid;
    c->fd = fds[0];
    return 0;
}

static void drain(struct verify_cmd *c)
{
    while (c->fd >= 0 && !c->eof) {
        char buf[256];
        ssize_t n = read(c->fd, buf, sizeof buf);
        if (n > 0) {
            size_t room = sizeof c->out - 1 - c->len;
            if ((size_t)n > room) c->overflow = true;
            memcpy(c->out + c->len, buf, (size_t)n < room ? (size_t)n : room);
            c->len += (size_t)n < room ? (size_t)n : room;
            c->out[c->len] = 0;
        } else if (n == 0) {
            c->eof = true;
        } else {
            if (errno != EINTR) break;   /* EAGAIN: nothing yet */
        }
    }
}

bool verify_cmd_poll(struct verify_cmd *c)
{
    drain(c);
    if (!c->reaped && c->eof) {
        int st;
        if (waitpid((pid_t)c->pid, &st, WNOHANG) == (pid_t)c->pid) {
            c->reaped = true;
            c->status = st;
        }
    }
    return c->reaped;
}

/* One number and nothing else, around blanks. */
static int parse_number(const char *text, double *value)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || errno) return -1;
    while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r') end++;
    if (*end || !isfinite(v)) return -1;
    *value = v;
    return 0;
}

int verify_cmd_finish(struct verify_cmd *c, const char *cmd, double *value, char *why, size_t n)
{
    bool killed = false;
    if (!verify_cmd_poll(c)) {
        int st = 0;
        if (waitpid((pid_t)c->pid, &st, WNOHANG) != (pid_t)c->pid) {
            kill(-(pid_t)c->pid, SIGKILL);
            while (waitpid((pid_t)c->pid, &st, 0) < 0 && errno == EINTR) {}
            killed = true;
        }
        kill(-(pid_t)c->pid, SIGKILL);   /* what it left running in the background */
        c->reaped = true;
        c->status = st;
        drain(c);
    }
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
    if (killed) return snprintf(why, n, "'%s' was still running at the block's end: killed", cmd), -1;
    if (WIFSIGNALED(c->status)) return snprintf(why, n, "'%s' died of signal %d", cmd, WTERMSIG(c->status)), -1;
    if (WEXITSTATUS(c->status) == 127)
        return snprintf(why, n, "'%s' exited 127: the command was not found or is not executable", cmd), -1;
    if (WEXITSTATUS(c->status) != 0) return snprintf(why, n, "'%s' exited %d", cmd, WEXITSTATUS(c->status)), -1;
    const char *t = c->out;
    while (*t == ' ' || *t == '\t' || *t == '\n') t++;
    if (!*t) return snprintf(why, n, "'%s' printed nothing: it must print one number", cmd), -1;
    if (c->overflow || parse_number(t, value) < 0) {
        char shown[64];
        size_t k = strcspn(t, "\n");
        snprintf(shown, sizeof shown, "%.*s", (int)(k < 40 ? k : 40), t);
        for (char *q = shown; *q; q++)
            if ((unsigned char)*q < 32 || (unsigned char)*q == 127) *q = '?';
        return snprintf(why, n, "'%s' printed '%s', not one number", cmd, shown), -1;
    }
    return 0;
}
