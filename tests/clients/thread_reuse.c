/* Two threads one after the other: the second is created once the first
   was joined, so Valgrind gives it the first one's thread id (2). Each
   runs a function of its own (first_work, second_work), so a tool can
   tell whether the second thread's calls were put under the first one's
   (--paths: a reused id must start a call path root of its own). */
#include <pthread.h>
#include <stdio.h>
#include "spin.h"

static volatile long sink;

static void first_work(void) { sink += spin(20000); }
static void second_work(void) { sink += spin(30000); }

static void *first(void *arg) { (void)arg; first_work(); return NULL; }
static void *second(void *arg) { (void)arg; second_work(); return NULL; }

int main(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, first, NULL) != 0) return 1;
    pthread_join(t, NULL);
    if (pthread_create(&t, NULL, second, NULL) != 0) return 1;
    pthread_join(t, NULL);
    printf("thread_reuse: %ld\n", sink);
    return 0;
}
