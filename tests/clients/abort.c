/* Makes some calls, then abort()s (SIGABRT, as a failed assert does).
   Under Valgrind the profile must still be written completely. */
#include <stdio.h>
#include <stdlib.h>

static volatile int sink;

static int work(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += i;
    return s;
}

static void give_up(void)
{
    sink = work(100);
    abort();
}

int main(void)
{
    for (int i = 0; i < 10; i++)
        sink += work(i * 10);
    printf("before abort\n");
    fflush(stdout);
    give_up();
    return 0;
}
