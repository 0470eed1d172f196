/* A system call that is part of its caller's turn but blocks until
   another thread acts (tests/tool/interleave.py, 8):

   blocked_call pipe   main writes 256 KiB to a pipe in one write(): the
                       pipe holds 64 KiB, so the call blocks until the
                       reader thread has read the rest
   blocked_call fifo   main opens a FIFO for writing: the open blocks until
                       the second thread opens it for reading

   Each prints what went through, 262144 or 1. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BYTES (256 * 1024)

static int pipe_fd[2];
static char fifo[64];
static long got;

static void *drain_pipe(void *arg)
{
   char buf[4096];
   long n;
   while ((n = read(pipe_fd[0], buf, sizeof buf)) > 0)
      got += n;
   return arg;
}

static void *read_fifo(void *arg)
{
   char c;
   int fd = open(fifo, O_RDONLY);
   if (fd >= 0 && read(fd, &c, 1) == 1)
      got = 1;
   return arg;
}

int main(int argc, char **argv)
{
   static char data[BYTES];
   int use_fifo = argc > 1 && strcmp(argv[1], "fifo") == 0;
   pthread_t t;
   int fd;
   if (use_fifo) {
      char dir[] = "/tmp/blocked_call.XXXXXX";
      if (!mkdtemp(dir)) return 1;
      snprintf(fifo, sizeof fifo, "%s/fifo", dir);
      if (mkfifo(fifo, 0600) != 0) return 1;
      pthread_create(&t, NULL, read_fifo, NULL);
      fd = open(fifo, O_WRONLY);                 /* blocks until the reader opens */
      if (fd < 0 || write(fd, "x", 1) != 1) return 2;
      close(fd);
      pthread_join(t, NULL);
      unlink(fifo);
      rmdir(dir);
   } else {
      if (pipe(pipe_fd) != 0) return 1;
      pthread_create(&t, NULL, drain_pipe, NULL);
      if (write(pipe_fd[1], data, BYTES) != BYTES) return 2;   /* blocks at 64 KiB */
      close(pipe_fd[1]);
      pthread_join(t, NULL);
   }
   printf("%ld\n", got);
   return 0;
}
