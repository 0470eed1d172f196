/* Loops whose head is the function's first instruction (issue 23).

   spin() is compiled at -O1, where gcc puts the loop head at the function's
   first instruction and closes the loop with `jne spin` (the test checks
   that with objdump). The functions in assembly below give the other
   shapes exactly, whatever the compiler does:

     spin_jmp   unconditional `jmp` back to its own entry (for(;;) at the top)
     selftail   builds and tears down a frame, then tail-calls itself with
                `jne selftail`: a self tail call through a jump
     lrec       loops at its entry, then recurses by a real call: loop and
                recursion in one function (for --separate-recs and
                --skip-direct-rec)
     sig_loop   a signal handler looping at its entry: the function at the
                bottom of its context, entered without a call
     jrec       jumps to its own entry with the stack pointer 8 bytes lower
                each time: NOT a loop by the rule (the stack pointer is not
                where it was at entry), so it stays a recursive call chain,
                as in the reference

   Instruction counts per call (the test derives self Ir from them):
     spin_jmp(n):  4 per round that goes on, 3 for the last (n >= 1)
     selftail(n):  7 per round, plus the final ret
     lrec(d, k):   3 per loop round at each level; 7 more per level that
                   recurses, 3 more at the deepest
     jrec(n, 8n):  3 per round, plus addq and ret
     sig_loop:     2 per round, plus ret
   Each is called from main and from twice_caller() (two callers, for
   --separate-callers). ROUNDS can be changed on the command line. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

volatile long sink;
long counter __attribute__((used));
long sig_rounds __attribute__((used));

void spin_jmp(long n);
void selftail(long n);
void lrec(long depth, long rounds);
void jrec(long n, long bytes);
void sig_loop(int sig);

/* -O1: `jne spin` closes the loop */
NOINLINE void spin(long n)
{
   do {
      sink++;
   } while (--n);
}

#define LREC_ROUNDS "50"

__asm__(
   ".text\n"
   ".globl spin_jmp\n"
   ".type spin_jmp, @function\n"
   "spin_jmp:\n"
   "   subq $1, %rdi\n"
   "   je 1f\n"
   "   addq $1, counter(%rip)\n"
   "   jmp spin_jmp\n"
   "1: ret\n"
   ".size spin_jmp, .-spin_jmp\n"

   ".globl selftail\n"
   ".type selftail, @function\n"
   "selftail:\n"
   "   pushq %rbx\n"
   "   movq %rdi, %rbx\n"
   "   addq %rbx, counter(%rip)\n"
   "   movq %rbx, %rdi\n"
   "   popq %rbx\n"
   "   subq $1, %rdi\n"
   "   jne selftail\n"
   "   ret\n"
   ".size selftail, .-selftail\n"

   ".globl lrec\n"
   ".type lrec, @function\n"
   "lrec:\n"
   "   addq $1, counter(%rip)\n"
   "   subq $1, %rsi\n"
   "   jne lrec\n"
   "   subq $1, %rdi\n"
   "   je 2f\n"
   "   movq $" LREC_ROUNDS ", %rsi\n"
   "   subq $8, %rsp\n"
   "   call lrec\n"
   "   addq $8, %rsp\n"
   "2: ret\n"
   ".size lrec, .-lrec\n"

   ".globl sig_loop\n"
   ".type sig_loop, @function\n"
   "sig_loop:\n"
   "   subq $1, sig_rounds(%rip)\n"
   "   jne sig_loop\n"
   "   ret\n"
   ".size sig_loop, .-sig_loop\n"

   ".globl jrec\n"
   ".type jrec, @function\n"
   "jrec:\n"
   "   subq $8, %rsp\n"
   "   subq $1, %rdi\n"
   "   jne jrec\n"
   "   addq %rsi, %rsp\n"
   "   ret\n"
   ".size jrec, .-jrec\n");

static inline __attribute__((always_inline)) void run_all(long rounds)
{
   spin(rounds);
   spin_jmp(rounds);
   selftail(rounds);
   lrec(4, rounds);
   jrec(20, 20 * 8);
   sig_rounds = rounds;
   raise(SIGUSR1);
}

NOINLINE void twice_caller(long rounds)
{
   run_all(rounds);
}

int main(int argc, char **argv)
{
   long rounds = argc > 1 ? atol(argv[1]) : 1000;
   signal(SIGUSR1, sig_loop);
   run_all(rounds);
   twice_caller(rounds);
   printf("loop_entry: %ld %ld\n", (long)sink, counter);
   return 0;
}
