/* pair.h: a struct that the user's host and device code share. */
typedef struct {
    int a;
    float b;
} Pair;
