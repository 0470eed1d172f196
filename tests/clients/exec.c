/* Replaces itself with execve (tests/tool/exec.py). Run without an
 * argument: calls before_exec() once, tries an exec that cannot succeed
 * (no such file), then execs itself with the argument "after", which
 * calls after_exec() twice and exits. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) static long before_exec(int n)
{
    long s = 0;
    for (int i = 0; i < n; i++) s += (long)i * i;
    return s;
}

__attribute__((noinline)) static long after_exec(int n)
{
    long s = 0;
    for (int i = 0; i < n; i++) s ^= (long)i << 3;
    return s;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "after") == 0) {
        printf("after %ld\n", after_exec(1000) + after_exec(2000));
        return 0;
    }
    printf("before %ld\n", before_exec(5000));
    fflush(stdout);
    char *bad[] = { "no-such-program", NULL };
    execv("/nonexistent/no-such-program", bad);
    char *again[] = { argv[0], "after", NULL };
    execv(argv[0], again);
    perror("execv");
    return 1;
}
