/* --separate-par (tests/tool/separate_par.py): the thesis' fib2 (section
   3.6), called as fib2(4,4); its base case calls base_case (a function
   to skip with --fn-skip); build(depth) allocates a binary tree of nodes,
   one allocation site per depth when build is separated by its argument
   (--objects call chains). The test derives every count from the same
   recursion, run in Python. */
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

volatile int sink;

NOINLINE int base_case(int i, int j)
{
    sink = i + j;
    return 1;
}

int fib2(int i, int j)
{
    if ((i < 2) || (j < 2)) return base_case(i, j);
    return fib2(i, j - 1) + fib2(i - 1, j) + fib2(i - 1, j - 1);
}

struct node { struct node *kid[2]; long depth; };

NOINLINE struct node *build(int depth)
{
    struct node *n = malloc(sizeof *n);
    n->depth = depth;
    n->kid[0] = depth > 0 ? build(depth - 1) : NULL;
    n->kid[1] = depth > 0 ? build(depth - 1) : NULL;
    return n;
}

NOINLINE long walk(const struct node *n)
{
    return n ? n->depth + walk(n->kid[0]) + walk(n->kid[1]) : 0;
}

int main(void)
{
    struct node *root = build(3);
    sink = (int)walk(root);
    return fib2(4, 4) == 0;
}
