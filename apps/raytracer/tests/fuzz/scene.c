/* scene.c: the scene file parser on any text, and the BVH built over the
 * spheres of every scene it accepts (a sphere as large as float allows
 * once made the build write past its nodes). */
#include "fuzz.h"
#include "raytracer/raytracer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size, NULL);
    if (!text)
        return 0;
    rt_scene scene;
    rt_scene_init(&scene);
    if (rt_scene_parse(&scene, text, "fuzz") == 0 && scene.n_spheres) {
        rt_bvh bvh;
        if (rt_bvh_build(&bvh, scene.spheres, scene.sphere_material,
                         scene.n_spheres) == 0)
            rt_bvh_free(&bvh);
    }
    rt_scene_free(&scene);
    free(text);
    return 0;
}
