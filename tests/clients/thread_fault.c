/* Two threads share a cache line; the second ends the process while the
   first is inside a loop that never blocks (so that, under the turns of
   --interleave, the first is waiting for its turn or running when the
   end comes). argv[1] says how the process ends:

     segv   the second thread writes through a null pointer (SIGSEGV)
     fpe    the second thread divides by zero (SIGFPE)
     main-segv  main faults (SIGSEGV) while the second thread loops
     segv3  as segv, with a third thread looping too (two threads wait
            for their turns when the fault comes)
     term   the second thread sends the process SIGTERM
     abort  the second thread calls abort() (SIGABRT)
     exit   the second thread calls exit(4)
     _exit  the second thread calls _exit(5)
     loop   nobody ends it: both threads loop until the test kills the
            process (SIGTERM from outside)

   A second argument `dump`: a part is dumped by client request once both
   threads run (CALLGRIND_DUMP_STATS_AT).

   Used by tests/tool/thread_faults.py: every output file of every
   analysis must still be complete afterwards. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

/* both threads write their own half of one line: false sharing */
static struct { volatile long a, b; } shared_line __attribute__((aligned(64)));
static volatile int second_started;
static const char *how;
static volatile int zero, sink_divisor = 7;

static void bump_a(long n)
{
    for (long i = 0; i < n; i++)
        shared_line.a++;
}

static void bump_b(long n)
{
    for (long i = 0; i < n; i++)
        shared_line.b++;
}

static void end_process(void)
{
    printf("second thread ends the process (%s)\n", how);
    fflush(stdout);
    if (strcmp(how, "segv") == 0 || strcmp(how, "segv3") == 0)
        *(volatile int *)0 = 1;
    else if (strcmp(how, "fpe") == 0)
        zero = sink_divisor / zero;
    else if (strcmp(how, "term") == 0)
        kill(getpid(), SIGTERM);
    else if (strcmp(how, "abort") == 0)
        abort();
    else if (strcmp(how, "exit") == 0)
        exit(4);
    else if (strcmp(how, "_exit") == 0)
        _exit(5);
    for (;;)            /* killed by the signal sent, or from outside */
        bump_b(100);
}

static void *third(void *arg)
{
    (void)arg;
    for (;;)
        bump_b(100);
    return NULL;
}

static void *second(void *arg)
{
    (void)arg;
    second_started = 1;
    bump_b(20000);
    end_process();
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t, t3;
    how = argc > 1 ? argv[1] : "exit";
    bump_a(1000);
    if (strcmp(how, "segv3") == 0 && pthread_create(&t3, NULL, third, NULL) != 0)
        return 1;
    if (pthread_create(&t, NULL, second, NULL) != 0)
        return 1;
    while (!second_started)
        bump_a(10);
    if (argc > 2 && strcmp(argv[2], "dump") == 0)
        CALLGRIND_DUMP_STATS_AT("both threads run");
    if (strcmp(how, "main-segv") == 0) {
        bump_a(20000);
        printf("main faults\n");
        fflush(stdout);
        *(volatile int *)0 = 1;
    }
    /* never waits: the process ends in the other thread (without the
       turns of --interleave, the test gives --fair-sched=yes: Valgrind's
       default lock would keep this thread running for seconds) */
    for (;;)
        bump_a(100);
    return 0;
}
