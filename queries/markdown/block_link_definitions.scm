; Link reference definitions: `[label]: destination "title"`.
(link_reference_definition
  (link_label) @label
  (link_destination) @destination)
