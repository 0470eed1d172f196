/* Two threads walk their own buffer (larger than the test's caches); main
 * calls CALLGRIND_ZERO_STATS between its two walks, while the worker waits
 * at a barrier between its own two walks. Used by tests/tool/zero_backdate.py:
 * with --separate-threads=yes only main's costs are zeroed, and only the
 * lines main loaded may be forgotten by the zero; the worker's resident
 * lines must still be accounted. */
#include <pthread.h>
#include <stdio.h>
#include <valgrind/callgrind.h>

#define SIZE (1 << 20)
static char main_buf[SIZE], worker_buf[SIZE];
static pthread_barrier_t barrier;

__attribute__((noinline)) static long walk(char *p, int rounds)
{
    long sum = 0;
    int r, i;
    for (r = 0; r < rounds; r++)
        for (i = 0; i < SIZE; i += 64)
            sum += p[i]++;
    return sum;
}

static void *worker(void *arg)
{
    long sum = walk(worker_buf, 3);
    (void)arg;
    pthread_barrier_wait(&barrier);      /* main zeroes now */
    pthread_barrier_wait(&barrier);
    sum += walk(worker_buf, 3);
    return (void *)sum;
}

int main(void)
{
    pthread_t t;
    void *ret;
    long sum;

    pthread_barrier_init(&barrier, NULL, 2);
    pthread_create(&t, NULL, worker, NULL);
    sum = walk(main_buf, 3);
    pthread_barrier_wait(&barrier);
    CALLGRIND_ZERO_STATS;
    pthread_barrier_wait(&barrier);
    sum += walk(main_buf, 3);
    pthread_join(t, &ret);
    printf("%ld\n", sum + (long)ret);
    return 0;
}
