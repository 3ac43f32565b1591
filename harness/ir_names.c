/* ir_names.c - which names a program's values and hidden storages may have (ir_name_ok): what
 * ir.c (values) and ir_layout.c (bases) both check, apart so that neither needs the other for it. */
#include <string.h>

#include "ir.h"

static const char *reserved[] = {
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in",
    "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with",
    "yield", "torch", "program", "Tensor", "Tuple", "List", "Optional", "int", "float", "bool",
    "range", "len", "print", "self", "_", NULL};

static int name_char(int c, int first) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (!first && c >= '0' && c <= '9');
}

int ir_name_ok(const char *name) {
  if (!name || !name_char((unsigned char)name[0], 1)) return 0;
  size_t n = 1;
  for (; name[n]; n++)
    if (!name_char((unsigned char)name[n], 0)) return 0;
  if (n > 64) return 0;
  /* names are made by the thousand: only those whose first letter starts a reserved word are
     compared with the list (the letters, once) */
  static _Thread_local unsigned char first[128];
  static _Thread_local int made;
  if (!made) {
    for (int i = 0; reserved[i]; i++) first[(unsigned char)reserved[i][0]] = 1;
    made = 1;
  }
  if (!first[(unsigned char)name[0]]) return 1;
  for (int i = 0; reserved[i]; i++)
    if (reserved[i][0] == name[0] && strcmp(name, reserved[i]) == 0) return 0;
  return 1;
}
