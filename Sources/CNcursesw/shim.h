#define _XOPEN_SOURCE_EXTENDED 1
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <langinfo.h>
#include <ncursesw/ncurses.h>

// Attribute and colour-pair macros (NCURSES_BITS, COLOR_PAIR) do not import
// into Swift; these give them function form.
static inline attr_t sensei_attr_bold(void) { return A_BOLD; }
static inline attr_t sensei_attr_dim(void) { return A_DIM; }
static inline attr_t sensei_attr_reverse(void) { return A_REVERSE; }
static inline attr_t sensei_attr_underline(void) { return A_UNDERLINE; }
