// placeholder: tests land with the feature
