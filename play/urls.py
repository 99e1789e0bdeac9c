from django.urls import path

from play import views

urlpatterns = [
    path("", views.index, name="play"),
    # The service worker, here so that its scope is /play/ (under /static/ it could not be).
    path("sw.js", views.service_worker, name="play-service-worker"),
]
