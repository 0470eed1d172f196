// C++ exception thrown four frames deep and caught in main: the
// unwinder returns into the catch handler past the skipped frames.
#include <cstdio>
#include <stdexcept>

static volatile int sink;

__attribute__((noinline)) static void thrower(int n)
{
    for (int i = 0; i < 50; i++)
        sink = sink + i;
    if (n % 2 == 0)
        throw std::runtime_error("even");
}

__attribute__((noinline)) static void level3(int n) { thrower(n); sink = 3; }
__attribute__((noinline)) static void level2(int n) { level3(n); sink = 2; }
__attribute__((noinline)) static void level1(int n) { level2(n); sink = 1; }

int main()
{
    int caught = 0;
    for (int i = 0; i < 10; i++) {
        try {
            level1(i);
        } catch (const std::exception &e) {
            caught++;
        }
    }
    std::printf("exception: caught %d\n", caught);
    return 0;
}
