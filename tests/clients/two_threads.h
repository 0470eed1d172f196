/* Two threads alive at once, released together (the sharing clients
   sharing_heap.c, sharing_objects.c, sharing_bytes.c): each worker calls
   wait_for_go() first and gets 0 or 1 as its argument. The gate is a
   semaphore, which is no barrier for --sharing (one segment); both
   threads are alive at once, so they have different thread ids
   (Valgrind reuses a finished thread's). */
#include <pthread.h>
#include <semaphore.h>

static sem_t started, go;

static void wait_for_go(void)
{
   sem_post(&started);
   sem_wait(&go);
}

static void run_two_together(void *(*worker)(void *))
{
   pthread_t t[2];
   long id;
   sem_init(&started, 0, 0);
   sem_init(&go, 0, 0);
   for (id = 0; id < 2; id++)
      pthread_create(&t[id], NULL, worker, (void *)id);
   for (id = 0; id < 2; id++)
      sem_wait(&started);
   for (id = 0; id < 2; id++)
      sem_post(&go);
   for (id = 0; id < 2; id++)
      pthread_join(t[id], NULL);
}
