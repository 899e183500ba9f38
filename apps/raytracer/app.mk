# app.mk: the raytracer. Its reference is compared with its kernels pixel
# by pixel. Its window (bin/raytracer-gtk) needs GTK 3; its test drives the
# window and screenshots it (bin/x11-screenshot).
$(B)/apps/raytracer/%.o: ALL_CFLAGS += -ffp-contract=off
$(eval $(call app,raytracer,,common))

# GUI programs need GTK 3; without it they are skipped with a one-line note.
# A .pc file is not enough: a machine may have it without every header
# (the GPU machine lacks cairo's), so gtk.h must also preprocess.
GTK_CFLAGS := $(shell pkg-config --cflags gtk+-3.0 2>/dev/null)
GTK_LIBS   := $(shell pkg-config --libs gtk+-3.0 2>/dev/null)
ifneq ($(GTK_LIBS),)
HASH := \#
ifeq ($(shell echo '$(HASH)include <gtk/gtk.h>' | $(CC) $(GTK_CFLAGS) -E -x c - \
                 >/dev/null 2>&1 && echo ok),)
GTK_LIBS :=
endif
endif
# $(call gui_program,PROGRAM,FOLDER,OBJECTS AND LIBRARIES,LINK FLAGS): bin/PROGRAM
# from every .c in FOLDER. (A conditional must not be inside the define:
# call expands the nested eval before eval sees the conditional.)
gui_program = $(if $(GTK_LIBS),$(eval $(call gui_program_,$(1),$(2),$(3),$(4))),\
    $(info note: skipping $(1): GTK 3 is not installed or incomplete (install libgtk-3-dev)))
define gui_program_
$(patsubst %.c,$(B)/%.o,$(wildcard $(2)/*.c)): ALL_CFLAGS += $(GTK_CFLAGS)
$(call link,$(1),$(patsubst %.c,$(B)/%.o,$(wildcard $(2)/*.c)) $(3),$(GTK_LIBS) $(4))
endef
$(call gui_program,raytracer-gtk,apps/raytracer/gtk,$(APP_LIBS_raytracer),$$(APP_LDLIBS_raytracer))
$(call gui_program,x11-screenshot,apps/raytracer/tests/gui)
$(BIN)/test-raytracer: | $(filter %/raytracer-gtk %/x11-screenshot,$(PROGRAMS))

# `make bench`: the table's image size and frames per row (GPU machine:
# 200).
RAYTRACER_BENCH ?= 700x700 20
BENCH_RUNS += raytracer
BENCH_raytracer = $(BIN)/bench-raytracer $(RAYTRACER_BENCH)
