/* fork() without exec: the child, still under Valgrind, must write its
   own profile (callgrind.out.%p names it by its pid) instead of
   overwriting its parent's. Like the reference, the child's profile also
   holds the costs its parent had before the fork. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long sink;

static void work(long n)
{
    for (long i = 0; i < n; i++)
        sink += i;
}

int main(void)
{
    pid_t child;
    work(100000);
    child = fork();
    if (child == 0) {
        work(1000);
        return 0;
    }
    if (child < 0)
        return 1;
    waitpid(child, NULL, 0);
    work(10);
    return 0;
}
