/* Makes some calls, then crashes with SIGSEGV. Under Valgrind the
   profile must still be written completely (ending with totals:). */
#include <stdio.h>

static volatile int sink;

static int work(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += i;
    return s;
}

static void crash(int *p)
{
    sink = work(100);
    *p = sink;          /* p is NULL */
}

int main(void)
{
    for (int i = 0; i < 10; i++)
        sink += work(i * 10);
    fflush(stdout);
    crash((int *)0);
    return 0;
}
