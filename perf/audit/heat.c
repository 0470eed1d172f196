/* audit27: a 2-D heat step the natural OpenMP way */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>

#define N 96
static double grid[N][N], next[N][N];
static double hottest;

static void init(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            grid[i][j] = (i == 0 || j == 0) ? 100.0 : 0.0;
}

static double step(void)
{
    double change = 0.0;
#pragma omp parallel for reduction(+:change)
    for (int i = 1; i < N - 1; i++) {
        double row_max = 0.0;
        for (int j = 1; j < N - 1; j++) {
            next[i][j] = 0.25 * (grid[i-1][j] + grid[i+1][j] + grid[i][j-1] + grid[i][j+1]);
            double d = next[i][j] - grid[i][j];
            change += d > 0 ? d : -d;
            if (next[i][j] > row_max) row_max = next[i][j];
        }
#pragma omp critical
        if (row_max > hottest) hottest = row_max;
    }
#pragma omp parallel for
    for (int i = 1; i < N - 1; i++)
        memcpy(&grid[i][1], &next[i][1], (N - 2) * sizeof(double));
    return change;
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 20;
    int fault_at = argc > 2 ? atoi(argv[2]) : -1;   /* step at which to fault (mode 'segv') or signal */
    const char *mode = argc > 3 ? argv[3] : "none";
    init();
    double total = 0;
    for (int s = 0; s < steps; s++) {
        if (s == fault_at) {
            if (!strcmp(mode, "segv")) {
#pragma omp parallel
                {
                    extern int omp_get_thread_num(void);
                    if (omp_get_thread_num() == 1) *(volatile int *)8 = 1;
                    for (volatile long k = 0; k < 100000000; k++) ;
                }
            } else if (!strcmp(mode, "wait")) {
                printf("ready\n"); fflush(stdout);
                for (;;) step();   /* keep working until killed */
            }
        }
        total += step();
    }
    printf("total change %.6f hottest %.6f\n", total, hottest);
    return 0;
}
