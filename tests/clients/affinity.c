/* What a client sees of its CPU affinity while the turns of --interleave
   run pinned to one host CPU (--pin-threads; tests/tool/pinning.py).

   Prints one line per look, "<who> get=<n> proc=<n>": n CPUs in the mask
   sched_getaffinity gives the thread, and in the Cpus_allowed_list of
   /proc/thread-self/status (the kernel's mask of the OS thread, which the
   tool does not dress up).

   affinity look   main before the threads, each worker midway through
                   its loop, a fork's child while the workers run, main
                   after the joins; first main sets its parent process's
                   affinity to what it is (another process's affinity:
                   no reason for the tool to stop pinning)
   affinity set    worker 0 sets its affinity to the first CPU of its
                   mask midway; worker 1 looks after that (yielding until
                   it has happened) and at the end

   Each worker runs ITERS iterations of a loop of one block, looking
   after LOOK_AT of them (so after a few dozen turns of 500 blocks, well
   before the tool's first look for a new home CPU at turn 256). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define ITERS   30000L
#define LOOK_AT 10000L

static int set_mode;
static volatile int looked[2], affinity_set;
static volatile long counter[2][8];

static int count_list(const char *list)
{
   int n = 0, lo, hi, used;
   while (sscanf(list, "%d%n", &lo, &used) == 1) {
      list += used;
      hi = lo;
      if (*list == '-' && sscanf(list + 1, "%d%n", &hi, &used) == 1) list += 1 + used;
      n += hi - lo + 1;
      if (*list != ',') break;
      list++;
   }
   return n;
}

static int proc_cpus(void)
{
   char line[4096];
   int n = -1;
   FILE *f = fopen("/proc/thread-self/status", "r");
   if (!f) return -1;
   while (fgets(line, sizeof line, f))
      if (strncmp(line, "Cpus_allowed_list:", 18) == 0) n = count_list(line + 18);
   fclose(f);
   return n;
}

static int get_cpus(void)
{
   cpu_set_t s;
   if (sched_getaffinity(0, sizeof s, &s) != 0) return -1;
   return CPU_COUNT(&s);
}

static void look(const char *who)
{
   printf("%s get=%d proc=%d\n", who, get_cpus(), proc_cpus());
   fflush(stdout);
}

/* worker 0 of `affinity set`: its own mask cut to its first CPU */
static void set_first_cpu(void)
{
   cpu_set_t s, one;
   int c;
   sched_getaffinity(0, sizeof s, &s);
   for (c = 0; !CPU_ISSET(c, &s); c++) {}
   CPU_ZERO(&one);
   CPU_SET(c, &one);
   if (sched_setaffinity(0, sizeof one, &one) != 0) perror("sched_setaffinity");
   affinity_set = 1;
}

static void *worker(void *arg)
{
   int me = (int)(long)arg;
   char who[32];
   long i;
   for (i = 0; i < ITERS; i++) {
      counter[me][0]++;
      if (i != LOOK_AT) continue;
      if (set_mode && me == 0) set_first_cpu();
      if (set_mode && me == 1)
         while (!affinity_set) sched_yield();
      snprintf(who, sizeof who, "worker%d", me);
      look(who);
      looked[me] = 1;
   }
   if (set_mode) {
      snprintf(who, sizeof who, "worker%d-end", me);
      look(who);
   }
   return NULL;
}

/* The parent process's affinity set to what it is. */
static void parent_unchanged(void)
{
   cpu_set_t s;
   if (sched_getaffinity(getppid(), sizeof s, &s) != 0 ||
       sched_setaffinity(getppid(), sizeof s, &s) != 0)
      perror("parent's affinity");
}

/* A fork's child while both workers run (they have looked: pinned). */
static void fork_and_look(void)
{
   pid_t child;
   while (!looked[0] || !looked[1]) sched_yield();
   child = fork();
   if (child == 0) {
      look("child");
      _exit(0);
   }
   waitpid(child, NULL, 0);
}

int main(int argc, char **argv)
{
   pthread_t t[2];
   long i;
   set_mode = argc > 1 && strcmp(argv[1], "set") == 0;
   if (!set_mode) parent_unchanged();
   look("main-start");
   for (i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, (void *)i);
   if (!set_mode) fork_and_look();
   for (i = 0; i < 2; i++) pthread_join(t[i], NULL);
   look("main-end");
   return 0;
}
