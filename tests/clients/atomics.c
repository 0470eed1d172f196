/* Atomic read-modify-write instructions (LOCK-prefixed on amd64, which
   VEX turns into compare-and-swap): the global bus events (Ge) of
   --collect-bus=yes. Each function does a known number of them, so the
   per-function counts are easy to check by eye. */
#include <stdio.h>

static long counter;
static int flag;

static void add_many(int n)
{
    for (int i = 0; i < n; i++)
        __atomic_fetch_add(&counter, 1, __ATOMIC_SEQ_CST);   /* lock xadd */
}

static int swap_many(int n)
{
    int old = 0;
    for (int i = 0; i < n; i++)
        old += __atomic_exchange_n(&flag, i, __ATOMIC_SEQ_CST);  /* xchg */
    return old;
}

static int cas_many(int n)
{
    int ok = 0;
    for (int i = 0; i < n; i++) {
        long expected = counter;
        ok += __atomic_compare_exchange_n(&counter, &expected, expected + 1,
                                          0, __ATOMIC_SEQ_CST,
                                          __ATOMIC_SEQ_CST);   /* lock cmpxchg */
    }
    return ok;
}

int main(void)
{
    add_many(100);
    int s = swap_many(50);
    int c = cas_many(25);
    printf("atomics: %ld %d %d\n", counter, s, c);
    return 0;
}
