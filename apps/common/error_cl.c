/*
 * error_cl.c: clframe's errors as the apps' (app_follow_clframe_errors in
 * error.h), through clframe's error handler.
 */
#include "error.h"

#include "clframe.h"

static void follow(int code, const char *message)
{
    (void)code;
    app_set_last_error(message);
}

void app_follow_clframe_errors(void)
{
    clframe_set_error_handler(follow);
}
