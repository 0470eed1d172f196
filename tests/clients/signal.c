/* A signal handler that raises a second signal handled by another
   handler: nested signal execution contexts. */
#include <signal.h>
#include <stdio.h>

static volatile long sink;

static void work(int n)
{
    for (int i = 0; i < n; i++)
        sink += i;
}

static void inner_handler(int sig)
{
    (void)sig;
    work(300);
}

static void outer_handler(int sig)
{
    (void)sig;
    work(100);
    raise(SIGUSR2);     /* nested: delivered while outer_handler runs */
    work(200);
}

int main(void)
{
    signal(SIGUSR1, outer_handler);
    signal(SIGUSR2, inner_handler);
    for (int i = 0; i < 5; i++) {
        work(50);
        raise(SIGUSR1);
    }
    printf("signal: %ld\n", sink);
    return 0;
}
