/* siglongjmp out of a signal handler: leaving the handler's execution
   context without a return. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>

static sigjmp_buf env;
static volatile long sink;

static void work(int n)
{
    for (int i = 0; i < n; i++)
        sink += i;
}

static void handler(int sig)
{
    (void)sig;
    work(100);
    siglongjmp(env, 1);
}

static void victim(void)
{
    work(30);
    raise(SIGUSR1);
    work(1000000);      /* never reached */
}

int main(void)
{
    signal(SIGUSR1, handler);
    for (volatile int i = 0; i < 5; i++) {
        if (sigsetjmp(env, 1) == 0)
            victim();
        work(20);
    }
    printf("siglongjmp: %ld\n", sink);
    return 0;
}
