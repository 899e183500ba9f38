/* board.h: the struct of the examples' game, one header for the host and
 * the device (plain ints lay out alike on both). */
typedef struct {
    int pits[4];
    int turn;
} Board;
