"""What a lesson's run and files become on the site: figures, images and the downloads."""
