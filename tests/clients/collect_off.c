/* Calls made while collection is off (issue 14, items 2 and 4).
   f's cost per call is fixed, so f's self cost in a part tells how many
   of its calls were collected there; g calls f twice.

   part 1 ("switch"):  f twice uncollected, an instrumentation switch,
                       f twice collected -> 2 calls of f (both tools)
   part 2 ("toggle"):  f twice uncollected, f twice collected, no switch
                       in between -> 2 calls (the reference writes 4)
   final part:         h is entered while collection is off and turns it
                       on: its call is counted (both tools); then main
                       returns into the stack emptied by the switch, a
                       call faked at the line of the call to main. */
#include <stdio.h>
#include <valgrind/callgrind.h>

__attribute__((noinline)) static int f(int x) { return x * 3 + 1; }
__attribute__((noinline)) static int g(int x) { return f(x) + f(x + 1); }

__attribute__((noinline)) static int h(int x)
{
    CALLGRIND_TOGGLE_COLLECT;                /* on */
    return f(x);
}

int main(void)
{
    int s = 0;
    CALLGRIND_TOGGLE_COLLECT;                /* off */
    s += g(1);
    CALLGRIND_TOGGLE_COLLECT;                /* on */
    CALLGRIND_STOP_INSTRUMENTATION;
    CALLGRIND_START_INSTRUMENTATION;
    s += g(2);
    CALLGRIND_DUMP_STATS_AT("switch");
    CALLGRIND_TOGGLE_COLLECT;                /* off */
    s += g(3);
    CALLGRIND_TOGGLE_COLLECT;                /* on */
    s += g(4);
    CALLGRIND_DUMP_STATS_AT("toggle");
    CALLGRIND_TOGGLE_COLLECT;                /* off */
    s += h(5);                               /* turns it on */
    printf("collect_off: %d\n", s);
    return 0;
}
