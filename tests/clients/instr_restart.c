/* Instrumentation switched on in main, off, and on again, with
 * --instr-atstart=no (tests/tool/clreq.py): each start fakes a call to
 * the function running, main; the reference then names it main'2
 * (docs/differences.md), we name it main. */
#include <stdio.h>
#include <valgrind/callgrind.h>

static volatile long sink;

__attribute__((noinline)) static void work(int n)
{
    int i;
    for (i = 0; i < n; i++) sink += i;
}

int main(void)
{
    CALLGRIND_START_INSTRUMENTATION;
    CALLGRIND_STOP_INSTRUMENTATION;
    work(1000);                            /* not seen */
    CALLGRIND_START_INSTRUMENTATION;
    work(1000);
    CALLGRIND_DUMP_STATS;                  /* part 1: main -> work */
    work(10);
    printf("instr_restart: %ld\n", sink);
    return 0;
}
