/* Compiled with -O2 so that "return g(...)" becomes a jmp to g: tail
   calls, which the call tracker must treat as calls (a jump to the first
   instruction of a function). The test checks with objdump that such a
   jmp exists. */
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

volatile int sink;

NOINLINE int tail_leaf(int x)
{
    int s = 0;
    for (int i = 0; i < x; i++)
        sink = i, s += sink;
    return s;
}

NOINLINE int tail_mid(int x)
{
    sink = x;
    return tail_leaf(x + sink);   /* tail call: jmp tail_leaf */
}

NOINLINE int tail_top(int x)
{
    sink = x;
    return tail_mid(x + 1);       /* tail call: jmp tail_mid */
}

int main(void)
{
    int r = 0;
    for (int i = 0; i < 100; i++)
        r += tail_top(i);
    printf("tailcall: %d\n", r);
    return 0;
}
