/* Direct recursion (fact, fib) and mutual recursion (is_even/is_odd).
   Callgrind names deeper recursion levels fn'2, fn'3, ... */
#include <stdio.h>

static unsigned long fact(unsigned n) { return n <= 1 ? 1 : n * fact(n - 1); }

static unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static int is_odd(unsigned n);
static int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }
static int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }

int main(void)
{
    unsigned long r = 0;
    for (unsigned i = 0; i < 20; i++)
        r += fact(i);
    r += fib(18);
    for (unsigned i = 0; i < 30; i++)
        r += is_even(i);
    printf("recursion: %lu\n", r);
    return 0;
}
