/* Every client request of <valgrind/callgrind.h>, between small phases of
   work whose costs tell which request did what: dumps (with and without a
   name), zeroing, collection toggled off and on, instrumentation stopped
   and started, and a request code of the family that does not exist
   (sent twice: the tool warns once). */
#include <stdio.h>
#include <valgrind/callgrind.h>

#define N 4096
static long data[N];

/* Touches the array with a stride, so that cache-use metrics have lines
   to load and evict; the callee chain gives arcs to check. */
static long touch(int stride, int rounds)
{
    long s = 0;
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < N; i += stride)
            s += data[i]++;
    return s;
}

static long inner(int k) { return touch(1 + k % 8, 2); }

static long phase(int k)
{
    long s = 0;
    for (int i = 0; i < 3; i++)
        s += inner(k + i);
    return s;
}

static long phase_a(void) { return phase(1); }
static long phase_b(void) { return phase(2); }
static long phase_c(void) { return phase(3); }
static long phase_d(void) { return phase(4); }
static long phase_e(void) { return phase(5); }
static long phase_f(void) { return phase(6); }
static long phase_g(void) { return phase(7); }

/* A request code of Callgrind's family that no tool version defines. */
static void unknown_request(void)
{
    VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ_TOOL_BASE('C', 'T') + 0x77,
                                    0, 0, 0, 0, 0);
}

int main(void)
{
    long s = 0;
    s += phase_a();
    CALLGRIND_DUMP_STATS;                    /* part 1: phase_a */
    s += phase_b();
    CALLGRIND_DUMP_STATS_AT("after b");      /* part 2: phase_b */
    s += phase_c();
    CALLGRIND_DUMP_STATS_AT("before zero");  /* part 3: phase_c */
    CALLGRIND_ZERO_STATS;                    /* (almost) nothing to drop */
    CALLGRIND_TOGGLE_COLLECT;                /* off */
    s += phase_d();                          /* not collected */
    CALLGRIND_TOGGLE_COLLECT;                /* on */
    s += phase_e();
    unknown_request();
    unknown_request();
    CALLGRIND_DUMP_STATS_AT("after e");      /* part 4: phase_e */
    CALLGRIND_STOP_INSTRUMENTATION;
    s += phase_f();                          /* not seen at all */
    CALLGRIND_START_INSTRUMENTATION;
    s += phase_g();                          /* final part: phase_g */
    printf("clreq: %ld\n", s);
    return 0;
}
