; Everything read from one inline tree, in one pass.
; Code spans: text inside them never produces links (including `[[wiki]]` links).
(code_span) @code
; Links. Images are not links between documents.
(inline_link (link_text)? @text (link_destination)? @destination) @inline_link
(full_reference_link (link_text) @text (link_label) @label) @reference_link
(collapsed_reference_link (link_text) @text) @reference_link
(shortcut_link (link_text) @text) @reference_link
(uri_autolink) @autolink
; Inline raw HTML: `id`/`name` anchors.
(html_tag) @html
