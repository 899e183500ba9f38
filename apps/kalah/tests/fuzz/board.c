/* board.c: the Kalah board and player parsers on any text: the cells,
 * then after a NUL byte the side to move, which is also read as a player. */
#include "fuzz.h"
#include "kalah/kalah.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *side;
    char *cells = fuzz_text(data, size, &side);
    if (!cells)
        return 0;
    kalah_board b;
    kalah_player p;
    kalah_board_parse(cells, side, &b);
    kalah_player_parse(side, &p);
    free(cells);
    return 0;
}
