/*
 * main.c: bin/test-raytracer, the suites of apps/raytracer.
 */
#include "common/tests/testing.h"

Suite *raytracer_scene_suite(void);
Suite *raytracer_render_suite(void);
Suite *raytracer_gtk_suite(void);

int main(void)
{
    return test_main((Suite *(*const[])(void)){
        raytracer_scene_suite, raytracer_render_suite, raytracer_gtk_suite, NULL});
}
