/* exit(3) called from a second thread while main waits in pthread_join:
   the process ends with that status (3) while the main thread is blocked
   and the exiting thread is deep in a call chain. The profile must be
   complete and include both threads' costs. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "spin.h"

static volatile long sink;

static void finish(void)
{
    sink += spin(5000);
    printf("worker exits the process\n");
    fflush(stdout);
    exit(3);
}

static void *worker(void *arg)
{
    /* give main the time to block in pthread_join (Valgrind runs one
       thread at a time; a sleeping thread lets the other run), so that
       both tools see the same calls */
    struct timespec pause = { 0, 200 * 1000 * 1000 };
    (void)arg;
    nanosleep(&pause, NULL);
    sink += spin(20000);
    finish();
    return NULL;
}

int main(void)
{
    pthread_t t;
    sink += spin(10000);
    if (pthread_create(&t, NULL, worker, NULL) != 0)
        return 1;
    pthread_join(t, NULL);
    printf("not reached\n");
    return 0;
}
