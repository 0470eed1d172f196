/* Three worker threads doing different amounts of work. Scheduling makes
   the exact costs (lock contention, loader work in each thread) vary run
   to run, so this client is compared structurally.

   The barrier keeps all three workers alive at the same time: Valgrind
   reuses the thread id of a finished thread, so without it a fast worker
   could finish before the next is created, and --separate-threads=yes
   would write fewer, merged per-thread files. */
#include <pthread.h>
#include <stdio.h>
#include "spin.h"

static volatile long sink[3];
static pthread_barrier_t all_started;

static void *worker(void *arg)
{
    long id = (long)arg;
    pthread_barrier_wait(&all_started);
    sink[id] = spin(20000 * (id + 1));
    return NULL;
}

int main(void)
{
    pthread_t t[3];
    pthread_barrier_init(&all_started, NULL, 4);
    for (long i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    pthread_barrier_wait(&all_started);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    printf("threads: %ld\n", sink[0] + sink[1] + sink[2]);
    return 0;
}
