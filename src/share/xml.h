/* share/xml — the little XML the servers answer with (WebDAV multistatus,
 * S3 listings and errors), read with libxml2 and nothing hand-parsed. */
#ifndef SLUICE_SHARE_XML_H
#define SLUICE_SHARE_XML_H

#include <stddef.h>
#include <libxml/tree.h>

/* Parse an untrusted document: no network, no entity expansion, no DTD
 * loading, errors silent. NULL when it is not XML. Free with xmlFreeDoc. */
xmlDocPtr share_xml_parse(const char *buf, size_t len);
/* The first child element with this local name, any namespace; NULL if none. */
xmlNodePtr share_xml_child(xmlNodePtr n, const char *name);
/* Text content of n into buf ("" when n is NULL), truncated to fit. */
void share_xml_text(xmlNodePtr n, char *buf, size_t len);
/* The text of <Code> and <Message> of an S3 error document, "" otherwise. */
void share_xml_s3_error(const char *buf, size_t len, char *out, size_t n);

#endif
