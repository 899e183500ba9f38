/*
 * seed.h: the declarations of local_malloc and local_free as the header of
 * the seed's local_malloc analyser gives them, written
 * again for clframe's tests: under __LOCAL_MALLOC_ANALYSIS__, both return
 * a __local pointer and take a size. Without the macro it declares nothing,
 * and clframe's rewrite declares them itself.
 */
#ifndef SEED_LOCAL_MALLOC_H
#define SEED_LOCAL_MALLOC_H

#ifdef __LOCAL_MALLOC_ANALYSIS__
__local void *local_malloc(size_t size);
__local void *local_free(size_t size);
#endif

#endif
