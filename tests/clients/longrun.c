/* A long-running client for the tests that control a running program
 * (tests/tool/control.py).
 *
 *   longrun STOP_FILE PROGRESS_FILE PAUSE_FILE MAX_SECONDS
 *
 * Works in rounds until STOP_FILE exists or MAX_SECONDS have passed (so a
 * dead test never leaves it running). A round calls work(), which walks a
 * buffer larger than the test's caches with line and page strides (many
 * misses and evictions, so back-dated costs flow all the time), then
 * writes the number of finished rounds into PROGRESS_FILE and sleeps a
 * millisecond (so the process is seen both computing and blocked in a
 * system call). While PAUSE_FILE exists it does no rounds, only waits,
 * and PROGRESS_FILE says so ("<rounds> P" instead of "<rounds> R"): a
 * command sent then falls between two known rounds, so the test knows
 * exactly how many work() calls each part must hold. At the end it prints
 * "rounds N (checksum S)".
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define BUF_SIZE (1 << 20)
static unsigned char buf[BUF_SIZE];

__attribute__((noinline)) static long walk(long stride, long start)
{
    long sum = 0, i;
    for (i = start; i < BUF_SIZE; i += stride) {
        sum += buf[i];
        buf[i] = (unsigned char)(sum + i);
    }
    return sum;
}

__attribute__((noinline)) static long work(long round)
{
    return walk(64, round % 64) + walk(4096 + 64, round % 4096);
}

static void write_progress(int fd, long rounds, char state)
{
    char text[32];
    int n = snprintf(text, sizeof text, "%012ld %c\n", rounds, state);
    if (pwrite(fd, text, n, 0) != n) perror("progress");
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    const struct timespec pause = { 0, 1000000 };
    double deadline;
    long rounds = 0, sum = 0;
    int fd;

    if (argc != 5) {
        fprintf(stderr, "usage: longrun STOP_FILE PROGRESS_FILE PAUSE_FILE MAX_SECONDS\n");
        return 2;
    }
    fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { perror(argv[2]); return 2; }
    deadline = now() + atof(argv[4]);
    write_progress(fd, 0, 'R');

    while (access(argv[1], F_OK) != 0 && now() < deadline) {
        if (access(argv[3], F_OK) == 0) {
            write_progress(fd, rounds, 'P');
        } else {
            sum += work(rounds);
            rounds++;
            write_progress(fd, rounds, 'R');
        }
        nanosleep(&pause, NULL);
    }
    close(fd);
    printf("rounds %ld (checksum %ld)\n", rounds, sum);
    return 0;
}
