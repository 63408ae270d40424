/* share/xml — libxml2, configured for documents from the network. */
#include "share/xml.h"

#include <stdio.h>
#include <string.h>
#include <libxml/parser.h>

xmlDocPtr share_xml_parse(const char *buf, size_t len)
{
    if (!buf || len == 0 || len > (8u << 20)) return NULL;
    return xmlReadMemory(buf, (int)len, "response.xml", NULL,
                         XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOBLANKS);
}

xmlNodePtr share_xml_child(xmlNodePtr n, const char *name)
{
    if (!n) return NULL;
    for (xmlNodePtr c = n->children; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, name) == 0) return c;
    return NULL;
}

void share_xml_text(xmlNodePtr n, char *buf, size_t len)
{
    buf[0] = 0;
    if (!n) return;
    xmlChar *t = xmlNodeGetContent(n);
    if (t) {
        snprintf(buf, len, "%s", (const char *)t);
        xmlFree(t);
    }
}

void share_xml_s3_error(const char *buf, size_t len, char *out, size_t n)
{
    out[0] = 0;
    xmlDocPtr doc = share_xml_parse(buf, len);
    if (!doc) return;
    xmlNodePtr root = xmlDocGetRootElement(doc);
    if (root && strcmp((const char *)root->name, "Error") == 0) {
        char code[128], msg[256];
        share_xml_text(share_xml_child(root, "Code"), code, sizeof code);
        share_xml_text(share_xml_child(root, "Message"), msg, sizeof msg);
        snprintf(out, n, "%s%s%s", code, *msg ? " " : "", msg);
    }
    xmlFreeDoc(doc);
}
