/* --separate-par: what a value is read as (tests/tool/separate_par.py,
   docs/manual.md "Contexts by argument value"): a long, an unsigned long
   of 2^63 and more, a pointer, and an argument in each of the six
   registers. */
#define NOINLINE __attribute__((noinline))

volatile long sink;

NOINLINE void g(long x) { sink = x; }
NOINLINE void u(unsigned long x) { sink = (long)x; }
NOINLINE void p(const void *q) { sink = q != 0; }
NOINLINE void six(long a, long b, long c, long d, long e, long f)
{
    sink = a + b + c + d + e + f;
}

int main(void)
{
    for (long i = -2; i < 2; i++) {
        g(i);
        p(i ? (const void *)&sink : 0);
    }
    u(1UL << 63);
    u(5);
    six(11, 12, 13, 14, 15, 16);
    return 0;
}
