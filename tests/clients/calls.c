/* Plain direct calls: a small call tree with repeated calls from
   several call sites, so that call counts and inclusive costs per arc
   are non-trivial. */
#include <stdio.h>

static int sum_to(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += i;
    return s;
}

static int square(int x) { return x * x; }

static int leaf_a(int x) { return sum_to(x) + square(x); }

static int leaf_b(int x) { return square(x) - sum_to(x / 2); }

static int middle(int x)
{
    int r = 0;
    for (int i = 0; i < 10; i++)
        r += (i & 1) ? leaf_a(x + i) : leaf_b(x + i);
    return r;
}

int main(void)
{
    int r = 0;
    for (int i = 0; i < 50; i++)
        r += middle(i);
    r += leaf_a(1000);          /* a second call site of leaf_a */
    printf("calls: %d\n", r);
    return 0;
}
