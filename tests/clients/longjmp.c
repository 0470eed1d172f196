/* longjmp out of several frames: the call tracker must pop the frames
   that the jump skipped. */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;
static volatile int depth_reached;

static void deepest(int n)
{
    int s = 0;
    for (int i = 0; i < 100; i++)
        s += i * n;
    depth_reached = s;
    longjmp(env, n + 1);
}

static void deeper(int n) { deepest(n); }
static void deep(int n) { deeper(n); }

static int work(int n)
{
    int s = 0;
    for (int i = 0; i < 200; i++)
        s += i ^ n;
    return s;
}

int main(void)
{
    int total = 0;
    for (volatile int round = 0; round < 20; round++) {
        int v = setjmp(env);
        if (v == 0)
            deep(round);
        total += v + work(round);
    }
    printf("longjmp: %d\n", total);
    return 0;
}
