/* Calls through function pointers: a dispatch table, and qsort calling
   back into a comparator (a call from libc into the client). */
#include <stdio.h>
#include <stdlib.h>

static int op_add(int a, int b) { return a + b; }
static int op_sub(int a, int b) { return a - b; }
static int op_mul(int a, int b) { return a * b; }

static int (*const table[])(int, int) = { op_add, op_sub, op_mul };

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int apply(int (*f)(int, int), int a, int b) { return f(a, b); }

int main(void)
{
    int v[200], r = 0;
    for (int i = 0; i < 300; i++)
        r += apply(table[i % 3], r & 0xff, i);
    for (int i = 0; i < 200; i++)
        v[i] = (i * 7919) % 211;
    qsort(v, 200, sizeof v[0], cmp_int);
    printf("fnptr: %d %d\n", r, v[100]);
    return 0;
}
