// Data objects from C++ allocations (tests/tool/objects.py): operator
// new[] and operator new in a loop (one site: one object), delete.
#include <cstdio>

struct Node { Node *next; long value; };

static Node *make_list(int n)
{
    Node *head = nullptr;
    for (int i = 0; i < n; i++) {
        Node *node = new Node;          // one object for all 100 nodes
        node->next = head;
        node->value = i;
        head = node;
    }
    return head;
}

int main()
{
    long *array = new long[256];        // 256 writes below
    for (int i = 0; i < 256; i++) array[i] = i;
    Node *list = make_list(100);
    long sum = 0;
    for (Node *n = list; n; n = n->next) sum += n->value;
    while (list) { Node *next = list->next; delete list; list = next; }
    delete[] array;
    std::printf("%ld\n", sum);
    return 0;
}
