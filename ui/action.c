/* action — the action table, key lookup and key names. */
#include "ui/action.h"

#include <stdio.h>
#include <string.h>

/* Group rows (id ACT_NONE, name NULL, help = title) keep the table's order
 * for the help screen. */
#define ROW_GROUP(title) { ACT_NONE, NULL, 0, 0, NULL, title, NULL },
#define ROW_ACTION(id, name, key, key2, label, help) { ACT_##id, name, key, key2, label, help, NULL },
static struct action_info table[] = { UI_ACTIONS(ROW_GROUP, ROW_ACTION) };
#define TABLE_LEN (sizeof table / sizeof table[0])

static const struct action_info *by_id[ACT_COUNT];

static void index_table(void)
{
    if (by_id[ACT_HELP]) return;
    const char *group = "";
    for (size_t i = 0; i < TABLE_LEN; i++) {
        if (!table[i].name) { group = table[i].help; continue; }
        table[i].group = group;
        by_id[table[i].id] = &table[i];
    }
}

const struct action_info *action_info(enum action a)
{
    index_table();
    return a > ACT_NONE && a < ACT_COUNT ? by_id[a] : NULL;
}

enum action action_for_key(int key)
{
    if (key == KEY_ENTER || key == '\r') key = '\n';
    for (size_t i = 0; i < TABLE_LEN; i++)
        if (table[i].name && key != 0 && (table[i].key == key || table[i].key2 == key)) return table[i].id;
    return ACT_NONE;
}

enum action action_by_name(const char *name)
{
    for (size_t i = 0; i < TABLE_LEN; i++)
        if (table[i].name && strcmp(table[i].name, name) == 0) return table[i].id;
    return ACT_NONE;
}

static const struct { int key; const char *label; } key_labels[] = {
    { '\n', "Enter" }, { UI_KEY_ESC, "Esc" }, { ' ', "Space" }, { '\t', "Tab" },
    { KEY_UP, "Up" }, { KEY_DOWN, "Down" }, { KEY_LEFT, "Left" }, { KEY_RIGHT, "Right" },
    { KEY_PPAGE, "PgUp" }, { KEY_NPAGE, "PgDn" }, { KEY_HOME, "Home" }, { KEY_END, "End" },
    { KEY_BACKSPACE, "Backspace" }, { KEY_DC, "Del" }, { KEY_IC, "Ins" }, { KEY_BTAB, "BTab" },
    { KEY_RESIZE, "Resize" },
};

const char *action_key_label(int key, char *buf, size_t n)
{
    for (size_t i = 0; i < sizeof key_labels / sizeof key_labels[0]; i++)
        if (key_labels[i].key == key) { snprintf(buf, n, "%s", key_labels[i].label); return buf; }
    if (key >= KEY_F(1) && key <= KEY_F(24)) snprintf(buf, n, "F%d", key - KEY_F0);
    else if (key > 0 && key < 32) snprintf(buf, n, "^%c", key + '@');
    else if (key >= 32 && key < 127) snprintf(buf, n, "%c", key);
    else snprintf(buf, n, "key%d", key);
    return buf;
}

void action_keys_text(enum action a, char *buf, size_t n)
{
    const struct action_info *ai = action_info(a);
    char k1[16] = "", k2[16] = "";
    buf[0] = 0;
    if (!ai) return;
    if (ai->key) action_key_label(ai->key, k1, sizeof k1);
    if (ai->key2) action_key_label(ai->key2, k2, sizeof k2);
    snprintf(buf, n, "%s%s%s", k1, k1[0] && k2[0] ? " " : "", k2);
}
