/* objects-bench.c -- workloads for the cost of --objects=yes (perf/objects.sh).

     list    malloc-heavy: builds a 100,000-node linked list (one malloc
             per node, from one site), walks it 10 times, frees it
     matrix  access-heavy, few objects: a 200x200 matrix product of
             malloc'ed rows (one site) into a static result
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node { struct node *next; long value; char pad[48]; };

static long list_bench(void)
{
    struct node *head = NULL, *n;
    long sum = 0;
    for (int i = 0; i < 100000; i++) {
        n = malloc(sizeof *n);
        n->next = head;
        n->value = i;
        head = n;
    }
    for (int pass = 0; pass < 10; pass++)
        for (n = head; n; n = n->next) sum += n->value;
    while (head) { n = head->next; free(head); head = n; }
    return sum;
}

#define N 200
static double result[N][N];

static double *new_row(void) { return calloc(N, sizeof(double)); }

static double matrix_bench(void)
{
    double *a[N], *b[N], s = 0;
    for (int i = 0; i < N; i++) {
        a[i] = new_row(); b[i] = new_row();
        for (int j = 0; j < N; j++) { a[i][j] = i + j; b[i][j] = i - j; }
    }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double t = 0;
            for (int k = 0; k < N; k++) t += a[i][k] * b[k][j];
            result[i][j] = t;
        }
    for (int i = 0; i < N; i++) { s += result[i][i]; free(a[i]); free(b[i]); }
    return s;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "list";
    if (strcmp(mode, "list") == 0) printf("%ld\n", list_bench());
    else printf("%f\n", matrix_bench());
    return 0;
}
