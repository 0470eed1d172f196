/* missclass_switch.c -- the same 64 lines read before and after an
   instrumentation switch (CALLGRIND_STOP/START_INSTRUMENTATION empties the
   caches): tests/tool/missclass.py expects every read of both calls to
   be a compulsory miss and a first touch (RdCold).  Built with -O2:
   touch() is a leaf whose data accesses are its reads and its `ret`. */
#include <valgrind/callgrind.h>

#define LINE 64
static char a[64 * LINE];

__attribute__((noinline)) long touch(void)
{
    long s = 0;
    for (int i = 0; i < 64; i++)
        s += ((volatile char *)a)[i * LINE];
    return s;
}

int main(void)
{
    long s = touch();
    CALLGRIND_STOP_INSTRUMENTATION;
    CALLGRIND_START_INSTRUMENTATION;
    s += touch();
    return (int)s;
}
