from django.urls import path

from push.api import views

urlpatterns = [
    path("push/webpush-key", views.WebPushKeyView.as_view(), name="push-webpush-key"),
]
