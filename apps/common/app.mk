# app.mk: apps/common, what the apps share (parsing, clocks, versions,
# errors, PNG files, the tests' helpers in tests/testing.c), built as an app
# of its own that every other app uses. PNG files need libpng.
PNG_CFLAGS := $(shell pkg-config --cflags libpng 2>/dev/null)
PNG_LIBS   := $(shell pkg-config --libs libpng 2>/dev/null || echo -lpng)
$(B)/apps/common/%.o: ALL_CFLAGS += $(PNG_CFLAGS)
PLAIN_C_FLAGS += $(PNG_CFLAGS)
$(eval $(call app,common,$(PNG_LIBS)))
