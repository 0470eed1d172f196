/* exit_group while another thread waits for its turn
   (tests/tool/interleave.py, 7).

   The worker spins in one superblock per iteration: it loads `stop` and
   leaves the loop when set (a side exit), else adds one to `spun`. So
   every iteration that found `stop` clear runs the load and the add once
   each, and one that found it set runs the load alone. main waits until
   the worker spins, makes a system call that is part of its turn (the
   core releases its lock around it: the worker takes it and waits for
   its turn inside the tool, past the core's check of whether the process
   ends), then sets `stop` and ends the process in one superblock (the
   store and the exit_group call with no branch between). No thread can
   see `stop` set before the process ends, so the worker's load and add
   run equally often -- unless a thread runs on after another one's
   exit_group, which neither the kernel nor Valgrind's own schedule lets
   it. */
#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile int stop, spun;

static void *spin(void *arg)
{
   __asm__ volatile("1: movl %[stop], %%eax\n\t"
                    "testl %%eax, %%eax\n\t"
                    "jne 2f\n\t"
                    "addl $1, %[spun]\n\t"
                    "jmp 1b\n"
                    "2:"
                    : [spun] "+m"(spun) : [stop] "m"(stop) : "rax", "cc", "memory");
   return arg;
}

int main(void)
{
   pthread_t t;
   int devnull = open("/dev/null", O_WRONLY);
   pthread_create(&t, 0, spin, 0);
   while (spun < 100000)
      ;
   if (write(devnull, "", 0) != 0)
      return 2;
   __asm__ volatile("movl $1, %0\n\t"
                    "movl %1, %%eax\n\t"
                    "xorl %%edi, %%edi\n\t"
                    "syscall"
                    : "=m"(stop) : "i"(SYS_exit_group) : "rax", "rdi", "rcx", "r11", "memory");
   return 1;                    /* not reached */
}
