/* Dies of SIGSEGV inside its own SIGSEGV handler (as Open MPI's and
   other runtimes' handlers do: print a report, then raise the signal
   again with the default action): the process ends while a handler runs
   on top of the calls it interrupted (main -> crash). With one argument
   the handler first asks for a dump (CALLGRIND_DUMP_STATS) there, with
   two for a zero (CALLGRIND_ZERO_STATS); main runs the same instructions
   whatever the arguments.
   tests/tool/segv.py. */
#include <signal.h>
#include <valgrind/callgrind.h>

static volatile double sink;
static int dump_in_handler, zero_in_handler;

__attribute__((noinline)) static void work(int n)
{
   for (int i = 0; i < n; i++)
      sink += i;
}

static void handler(int sig)
{
   work(1000);
   if (dump_in_handler)
      CALLGRIND_DUMP_STATS;
   if (zero_in_handler)
      CALLGRIND_ZERO_STATS;
   work(500);
   signal(sig, SIG_DFL);
   raise(sig);
}

__attribute__((noinline)) static void crash(void)
{
   work(100000);
   *(volatile int *)0 = 0;
}

int main(int argc, char **argv)
{
   (void)argv;
   dump_in_handler = argc == 2;
   zero_in_handler = argc == 3;
   signal(SIGSEGV, handler);
   work(50000);
   crash();
   return 0;
}
