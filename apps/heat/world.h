/*
 * world.h: the heat world (a grid of cells with a temperature and a
 * properties word) and everything that is not stepping it: the standard test
 * world, the text and binary file formats of apps/heat/SPEC.md (those
 * of the seed's HPCEHeatWorldV0, so worlds move between implementations),
 * their validation, and rendering to BMP or PNG.
 *
 * Every function that can fail returns 0 or a negative code and
 * leaves a message naming the problem and where in app_last_error().
 */
#ifndef HEAT_WORLD_H
#define HEAT_WORLD_H

#include <stdint.h>
#include <stdio.h>

/* Bits of a cell's properties word; no other value is valid in a file. */
enum {
    HEAT_CELL_NORMAL    = 0,
    HEAT_CELL_FIXED     = 0x1,  /* temperature never changes */
    HEAT_CELL_INSULATOR = 0x2   /* never changes and blocks diffusion */
};

typedef struct heat_world {
    uint32_t w, h;            /* cells across and down; index y*w + x */
    float alpha;              /* diffusion constant */
    uint32_t *properties;     /* w*h flag words */
    float *state;             /* w*h temperatures in [0, 1] */
} heat_world;

/* The largest world, in cells: 2^31 (8 GiB an array, 16 GiB a world; a
 * square one is at most 46340 a side), so that every cell's index and its
 * neighbours' fit the kernels' uint, and so does a side (2^31 at most)
 * plus a tile's reach past it. A file whose header claims more is refused
 * before anything is allocated. */
#define HEAT_WORLD_MAX_CELLS (1u << 31)

/* Allocates a w x h world of normal cells at temperature 0. Refuses a zero
 * size and more than HEAT_WORLD_MAX_CELLS cells. */
int heat_world_alloc(heat_world *world, uint32_t w, uint32_t h, float alpha);
void heat_world_free(heat_world *world);
int heat_world_copy(heat_world *dst, const heat_world *src);

/* The spec's n x n "slalom track" (n >= 3 ... any n the rules can draw). */
int heat_world_make_standard(heat_world *world, uint32_t n, float alpha);

/* Checks what the loader checks, for a world built in memory: known flags,
 * temperatures in [0, 1] and not NaN, a border of insulating or fixed cells
 * (so that stepping never reads outside the grid). */
int heat_world_validate(const heat_world *world);

/* Reads a world in either format (told apart by the header word) from f,
 * leaving the stream just after its "End" (another world may follow);
 * `name` says where it came from in messages ("<stdin>", a path). Its
 * arrays are allocated as their entries arrive, never sized by the header
 * alone, so a short input claiming a huge world costs little memory. On
 * error world is left empty (all zero) and nothing is allocated. */
int heat_world_load(heat_world *world, FILE *f, const char *name);

/* The same for an input that holds one world (a file, a program's standard
 * input): the stream is read to its end, and anything but whitespace after
 * "End" is refused. heat_world_load_file reads a path so. */
int heat_world_load_whole(heat_world *world, FILE *f, const char *name);
int heat_world_load_file(heat_world *world, const char *path);

/* Writes the world in text (binary = 0) or binary format; fails if any
 * write fails (a full disk, a closed pipe). */
int heat_world_save(const heat_world *world, FILE *f, int binary);

/* Draws the world: insulators green, other cells a blue (0) to red (1)
 * ramp, row 0 at the top. The format follows the file name (.bmp or .png,
 * any case); the image is written to a temporary file that is renamed over
 * `path` only when complete, so a failure never leaves a partial image. */
int heat_world_render(const heat_world *world, const char *path);

/* The same image written to an open stream (standard output, a pipe),
 * where there is nothing to rename: format is "bmp" or "png". */
int heat_world_render_stream(const heat_world *world, FILE *f,
                             const char *format);

/* The colour of one cell as the renderer draws it (rgb[0..2]). */
void heat_world_cell_colour(const heat_world *world, size_t index,
                            uint8_t rgb[3]);

#endif /* HEAT_WORLD_H */
